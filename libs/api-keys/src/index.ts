export * from './api-key-format';
export * from './api-key-cache';
export * from './api-key.service';
export * from './api-keys.module';
export * from './entities/user-registry-api-key.entity';
