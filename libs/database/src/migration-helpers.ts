import { QueryRunner, Table, TableColumnOptions, TableForeignKey, TableIndex } from 'typeorm';
import { PortableKind, portableColumn, providerOf } from './portable-columns';

/** Builds dialect-neutral tables for migrations from portable column kinds. */
export class SchemaWriter {
  constructor(private readonly queryRunner: QueryRunner) {}

  get provider() {
    return providerOf(this.queryRunner.connection.options.type);
  }

  column(
    kind: PortableKind,
    name: string,
    options: Omit<TableColumnOptions, 'name' | 'type'> = {},
  ): TableColumnOptions {
    return portableColumn(this.provider, kind, name, options);
  }

  /** Integer identity primary key named Id. */
  id(table: string): TableColumnOptions {
    return {
      name: 'Id',
      type: this.provider === 'mssql' ? 'int' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
      primaryKeyConstraintName: `PK_${table}`,
    };
  }

  /** 64-bit identity primary key named Id (see PortableIdentityColumn). */
  identity64(table: string): TableColumnOptions {
    return {
      ...this.column('identity64', 'Id'),
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
      primaryKeyConstraintName: `PK_${table}`,
    };
  }

  /** Created/Updated/Deleted by and date: the audit columns of every configuration record. */
  auditColumns(): TableColumnOptions[] {
    return [
      this.column('timestamp', 'CreatedDate'),
      this.column('string', 'CreatedUser', { length: '256' }),
      this.column('timestamp', 'UpdatedDate', { isNullable: true }),
      this.column('string', 'UpdatedUser', { length: '256', isNullable: true }),
      this.column('timestamp', 'DeletedDate', { isNullable: true }),
      this.column('string', 'DeletedUser', { length: '256', isNullable: true }),
    ];
  }

  async createTable(
    name: string,
    columns: TableColumnOptions[],
    indices: { name: string; columns: string[]; unique?: boolean; where?: string }[] = [],
    foreignKeys: { name: string; column: string; references: string }[] = [],
  ): Promise<void> {
    await this.queryRunner.createTable(
      new Table({
        name,
        columns,
        indices: indices.map(
          (i) =>
            new TableIndex({
              name: i.name,
              columnNames: i.columns,
              isUnique: i.unique ?? false,
              where: i.where,
            }),
        ),
        foreignKeys: foreignKeys.map(
          (f) =>
            new TableForeignKey({
              name: f.name,
              columnNames: [f.column],
              referencedTableName: f.references,
              referencedColumnNames: ['Id'],
              onDelete: 'NO ACTION',
            }),
        ),
      }),
    );
  }
}
