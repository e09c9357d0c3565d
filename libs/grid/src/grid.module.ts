import { Module } from '@nestjs/common';
import { GridService } from './grid.service';
import { AuditGridsController } from './grids/audit-grids.controller';
import { TelemetryGridsController } from './grids/telemetry-grids.controller';
import { TelemetrySeriesController } from './grids/series.controller';

@Module({
  controllers: [TelemetryGridsController, TelemetrySeriesController, AuditGridsController],
  providers: [GridService],
  exports: [GridService],
})
export class GridModule {}
