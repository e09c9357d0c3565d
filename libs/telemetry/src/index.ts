export * from './stages';
export * from './engine-metrics';
export * from './folded-histograms';
export * from './telemetry.module';
export * from './http-server-metrics';
export * from './event-loop-delay';
export * from './runtime.controller';
export * from './database-size-gauges';
