import type { SqlServerDataSourceOptions } from 'typeorm/driver/sqlserver/SqlServerDataSourceOptions';
import { dataSourceOptions } from './data-source-options';
import type { MssqlModule } from './sql-server';

const sqlServer = (url: string) =>
  dataSourceOptions(
    { provider: 'mssql', connectionString: url, dataDirectory: '' },
    [],
    [],
  ) as SqlServerDataSourceOptions & {
    driver: MssqlModule;
  };

describe('SQL Server connection options', () => {
  it('store and read instants in UTC, whatever the host zone', () => {
    // TypeORM sets tedious to useUTC: false unless told otherwise: local wall time in datetime2.
    expect(sqlServer('mssql://u:p@sql.example:1433/service').options?.useUTC).toBe(true);
  });

  it('encrypt and verify the server certificate unless the URL says otherwise', () => {
    const plain = sqlServer('mssql://u:p@sql.example/service');
    expect(plain.options).toMatchObject({ encrypt: true, trustServerCertificate: false });
    expect(plain.port).toBe(1433);
    const trusting = sqlServer('mssql://u:p@sql.example:14330/service?trustServerCertificate=true');
    expect(trusting.options).toMatchObject({ encrypt: true, trustServerCertificate: true });
    expect(sqlServer('mssql://u:p@sql.example/service?encrypt=false').options?.encrypt).toBe(false);
  });

  it('take the database, user and password from the URL, decoded', () => {
    const o = sqlServer('mssql://svc%40corp:p%2Fw%3Ad@sql.example:14330/decisioning%20ops');
    expect({
      host: o.host,
      port: o.port,
      username: o.username,
      password: o.password,
      database: o.database,
    }).toEqual({
      host: 'sql.example',
      port: 14330,
      username: 'svc@corp',
      password: 'p/w:d',
      database: 'decisioning ops',
    });
  });

  it('bind a JavaScript date given without a column type as datetime2, not legacy datetime', () => {
    const { driver } = sqlServer('mssql://u:p@sql.example/service');
    const request = new driver.Request() as {
      input(name: string, value: unknown): void;
      parameters: Record<string, { type: { declaration: string } }>;
    };
    request.input('at', new Date('1600-01-01T00:00:00.001Z'));
    expect(request.parameters.at.type.declaration).toBe('datetime2');
  });
});
