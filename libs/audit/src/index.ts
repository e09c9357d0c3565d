export * from './audit-types';
export * from './entities';
export * from './login-recorder';
export * from './logout-recorder';
export * from './address-window';
export * from './audit.module';
export * from './admin-events';
