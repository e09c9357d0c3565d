export * from './authorize';
export * from './credential-resolver';
export * from './auth.guard';
export * from './auth.module';
