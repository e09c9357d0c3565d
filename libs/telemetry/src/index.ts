export * from './stages';
export * from './engine-metrics';
export * from './warning-recorder';
export * from './telemetry.module';
