import './thread-pool';
import 'reflect-metadata';
import { trustedProxyStartLine } from '@app/http-edge';
import { loadSettings, SettingError, withEmbeddedSecrets } from '@app/config';
import { dataDirectoryWarning, restrictProcessUmask } from '@app/database';
import { createApp } from './create-app';
import { drainAndClose } from './shutdown';

async function main(): Promise<void> {
  let settings;
  let generated: string[];
  try {
    ({ settings, generated } = withEmbeddedSecrets(loadSettings(process.env)));
  } catch (err) {
    if (err instanceof SettingError) {
      // One line naming the setting and what is allowed; never the value (it may be a secret).
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // The SQLite files (and the embedded secrets) are the service's user's only, whenever they are created.
  if (settings.DatabaseProvider === 'sqlite') restrictProcessUmask();
  const app = await createApp(settings);
  const logger = app.get(await import('nestjs-pino').then((m) => m.Logger));
  const openDirectory =
    settings.DatabaseProvider === 'sqlite' ? dataDirectoryWarning(settings.DataDirectory) : undefined;
  if (openDirectory) logger.warn(openDirectory);
  logger.log(trustedProxyStartLine(settings.trustProxy, settings.trustedForwardedHeaders));
  if (generated.length) {
    logger.warn(
      `${generated.join(' and ')} were generated for this embedded SQLite installation and kept in ${settings.DataDirectory}; production must set them.`,
    );
  }
  // Draining shutdown (shutdown.ts). A second signal, or ShutdownTimeoutMilliseconds, forces exit 1.
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) process.exit(1);
      closing = true;
      setTimeout(() => {
        logger.error(`Shutdown did not finish within ${settings.ShutdownTimeoutMilliseconds} ms`);
        process.exit(1);
      }, settings.ShutdownTimeoutMilliseconds).unref();
      drainAndClose(app, settings, logger, signal).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'Shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  await app.listen(settings.Port, '0.0.0.0');
  process.stdout.write(
    `\n  Service listening on http://localhost:${settings.Port}  (console: /, ready: /api/Ready, explorer: /swagger/)\n\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
