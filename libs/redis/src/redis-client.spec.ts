import { loadSettings } from '@app/config';
import { formatEndpoint, sentinelClientOptions } from './redis-client';
import { concernsMaster, sentinelBackOffMilliseconds } from './sentinel-event-watcher';

const settings = (env: Record<string, string>) => loadSettings(env);

describe('sentinelClientOptions', () => {
  it("takes the master's name, the Sentinels and their password from the settings, and only credentials, database and TLS from the URL", () => {
    const o = sentinelClientOptions(
      settings({
        RedisConnectionString: 'rediss://app:p%40ss@ignored.example:1/3',
        RedisSentinels: 's1:26379, [::1]:26380',
        RedisSentinelMasterName: 'orders',
        RedisSentinelPassword: 'sentinel-pw',
      }),
    );
    expect(o).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'orders',
      sentinelPassword: 'sentinel-pw',
      failoverDetector: true,
      username: 'app',
      password: 'p@ss',
      db: 3,
      tls: {},
      enableTLSForSentinelMode: true,
    });
    expect(o.host).toBeUndefined();
    expect(o.port).toBeUndefined();
  });

  it('speaks plain TCP to a redis:// master, database 0 and no credentials by default', () => {
    const o = sentinelClientOptions(
      settings({ RedisConnectionString: 'redis://localhost', RedisSentinels: 'h:26379' }),
    );
    expect(o).toMatchObject({ name: 'mymaster', db: 0, username: undefined, password: undefined });
    expect(o.tls).toBeUndefined();
    expect(o.enableTLSForSentinelMode).toBeUndefined();
    expect(o.sentinelPassword).toBeUndefined();
  });
});

describe('Sentinel events', () => {
  it.each([
    ['+switch-master', 'mymaster 127.0.0.1 6379 127.0.0.1 6380', true],
    ['+sdown', 'master mymaster 127.0.0.1 6379', true],
    ['+slave', 'slave 127.0.0.1:6380 127.0.0.1 6380 @ mymaster 127.0.0.1 6379', true],
    ['+sdown', 'master other 127.0.0.1 7000', false],
    ['+sdown', 'master mymaster2 127.0.0.1 7000', false],
    ['+tilt', '#tilt mode entered', false],
    ['__sentinel__:hello', '127.0.0.1,26379,abc,0,mymaster,127.0.0.1,6379,0', false],
  ])('%s "%s" concerns mymaster: %s', (channel, payload, expected) =>
    expect(concernsMaster(channel, payload, 'mymaster')).toBe(expected),
  );

  it('backs off 200 ms more per Sentinel that failed in a row, at most 2 s', () => {
    expect([1, 2, 5, 10, 50].map(sentinelBackOffMilliseconds)).toEqual([200, 400, 1000, 2000, 2000]);
  });

  it('formats an IPv6 endpoint in brackets', () => {
    expect(formatEndpoint('::1', 26379)).toBe('[::1]:26379');
    expect(formatEndpoint('10.0.0.1', 26379)).toBe('10.0.0.1:26379');
  });
});
