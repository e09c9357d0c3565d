export * from './problem';
export * from './problem.filter';
export * from './problem.dto';
export * from './database-errors';
export * from './short-reason';
export * from './answer-hook';
