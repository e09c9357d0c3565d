import { availableParallelism } from 'node:os';

/**
 * Argon2 runs in the libuv thread pool, which has 4 threads unless told otherwise: on a bigger machine
 * sign-ins would use only 4 cores. libuv reads UV_THREADPOOL_SIZE when the pool is first used, so this module
 * is imported first. An explicit UV_THREADPOOL_SIZE is respected.
 */
if (!process.env.UV_THREADPOOL_SIZE) {
  process.env.UV_THREADPOOL_SIZE = String(Math.max(4, availableParallelism()));
}
