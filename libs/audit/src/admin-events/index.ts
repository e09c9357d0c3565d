export * from './admin-event-types';
export * from './admin-events.service';
export * from './admin-request.middleware';
export * from './refusal-aggregates';
