export * from './bounded-queue';
export * from './capture-queue-id';
export * from './entities';
