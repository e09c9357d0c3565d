export * from './permissions';
export * from './actor';
export * from './route-access';
export * from './request-context';
export * from './admin-action';
