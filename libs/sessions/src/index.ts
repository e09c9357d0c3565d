export * from './stream-registry';
export * from './stream-publisher';
export * from './session-revocation.service';
export * from './logout.service';
export * from './sessions.module';
