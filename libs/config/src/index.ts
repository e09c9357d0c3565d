export * from './settings';
export * from './embedded-secrets';
export * from './config.module';
export * from './settings-slices';
