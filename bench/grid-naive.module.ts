/* The naive way of a grid call with statistics, as docs/grids.md defines it and the system in the spec does
 * it: up to 100 000 whole rows of the window loaded through the ORM into the application, statistics
 * computed there. A route of the benchmark's service process (bench:grids), never of the service. */
import { Controller, Get, Module } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource } from 'typeorm';
import { Authenticated } from '@app/access';
import { ArchiverStagePerformanceCounter } from '@app/engine';
import { referenceStatistics, STATISTICS_CAP } from '@app/grid';

export const STAT_COLUMNS = [
  'TotalMicroseconds',
  'MinMicroseconds',
  'MaxMicroseconds',
  'InvokeCount',
] as const;

@Controller('bench')
class NaiveGridController {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  @Get('naive-grid')
  @Authenticated({ landlordOnly: true })
  async naive() {
    const to = new Date();
    const from = new Date(to.getTime() - 3_600_000);
    const entities = await this.ds.getRepository(ArchiverStagePerformanceCounter).find({
      where: { CreatedDate: Between(from, to) },
      order: { CreatedDate: 'DESC', Id: 'DESC' },
      take: STATISTICS_CAP,
    });
    const statistics = Object.fromEntries(
      STAT_COLUMNS.map((c) => [c, referenceStatistics(entities.map((e) => Number(e[c])))]),
    );
    return { rows: entities.slice(0, 100), total: entities.length, statistics };
  }
}

@Module({ controllers: [NaiveGridController] })
export class NaiveGridModule {}
