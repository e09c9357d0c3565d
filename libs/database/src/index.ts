export * from './portable-columns';
export * from './data-source-options';
export * from './migration-helpers';
export * from './migrations';
export * from './database.module';
export * from './audited-record';
export * from './sqlite-files';
