import { chmodSync, statSync } from 'node:fs';

/** The SQLite database, its -wal and -shm files and the embedded secrets: the service's user only. */
export const OWNER_ONLY_FILE_MODE = 0o600;

/**
 * Sets the SQLite file and its -wal and -shm companions (those that exist) to OWNER_ONLY_FILE_MODE: they
 * hold every record, password hashes included, beside the 0600 embedded secrets. SQLite creates -wal and -shm
 * with the mode of the database file, and the process umask (restrictProcessUmask) covers what is created
 * after.
 */
export function restrictSqliteFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((statSync(f).mode & 0o777) !== OWNER_ONLY_FILE_MODE) chmodSync(f, OWNER_ONLY_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Every file the process creates from now on is for its user only (umask 077): SQLite deletes and recreates
 * its -wal and -shm files while the service runs. Called by the entry points (main.ts, migrate.ts), not by
 * the libraries, since the umask is the whole process's.
 */
export function restrictProcessUmask(): void {
  process.umask(process.umask() | 0o077);
}

/**
 * A warning when DataDirectory lets its group or everyone in: the files inside are 0600, but a
 * folder others can enter and list is one mistake away from exposing them. undefined when it is owner only.
 */
export function dataDirectoryWarning(dataDirectory: string): string | undefined {
  const mode = statSync(dataDirectory).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `DataDirectory ${dataDirectory} is open to ${mode & 0o007 ? 'every user' : 'its group'} (mode ${mode
    .toString(8)
    .padStart(3, '0')}); it holds the database and the embedded secrets: chmod 700 it.`;
}
