import { Module } from '@nestjs/common';
import { GridService } from './grid.service';
import { AuditGridsController, TelemetryGridsController } from './grids/grids.controller';

@Module({
  controllers: [TelemetryGridsController, AuditGridsController],
  providers: [GridService],
  exports: [GridService],
})
export class GridModule {}
