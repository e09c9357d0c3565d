export * from './clock';
export * from './common.module';
export * from './with-timeout';
export * from './terminal-log';
export * from './listeners';
export * from './lifecycle';
export * from './background-slices';
