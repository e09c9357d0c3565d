import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { IdentityModule } from '@app/identity';
import { ArchiveRepository } from './archiver/archive.repository';
import { ArchivePurgeService } from './archiver/archive-purge.service';
import { ArchiverService } from './archiver/archiver.service';
import { CaseCreationService } from './case-creation/case-creation.service';
import { LiveStatusCache } from './case-creation/live-status-cache';
import { InvokeAdmission } from './invoke/invoke-admission';
import { CaseNotifier } from './case-creation/case-notifier';
import { CaseRepository } from './case-creation/case.repository';
import { ConfigurationRepository } from './model/configuration.repository';
import { ModelCatalog } from './model/model-catalog';
import { ModelService } from './configuration/model.service';
import { WorkflowService } from './configuration/workflow.service';
import { DemoSeedService } from './demo/demo-seed.service';
import { CaseWorkflowController } from './case-workflow.controller';
import { CaseWorkflowStatusController } from './case-workflow-status.controller';
import { EntityAnalysisModelController } from './entity-analysis-model.controller';
import { InvokeController } from './invoke.controller';
import {
  ArchiverStagePerformanceCounter,
  CaseCreationStagePerformanceCounter,
  ENGINE_ENTITIES,
} from './entities';
import { InvokeService } from './invoke/invoke.service';
import { StageRollupRepository } from './rollups/stage-rollup.repository';
import { StageRollupService } from './rollups/stage-rollup.service';
import { TelemetryRetention } from '@app/capture-queues';
import { TelemetryModule } from '@app/telemetry';
import { CapturePipelineTelemetry } from './telemetry/capture-pipeline-telemetry';
import { PipelineTelemetry } from './telemetry/pipeline-telemetry';

/**
 * The decisioning engine: configuration records, the invoke pipeline, the Archiver and case creation
 * queues, and their stage rollups. PipelineTelemetry is bound to the capture queues and
 * the service's instruments (CapturePipelineTelemetry).
 */
@Module({
  // IdentityModule first: the landlord exists before the demo seed runs (deeper modules bootstrap first).
  imports: [TypeOrmModule.forFeature(ENGINE_ENTITIES), IdentityModule, TelemetryModule, AuditModule],
  controllers: [
    // first: its routes are the service's busiest (AppModule: route order)
    InvokeController,
    EntityAnalysisModelController,
    CaseWorkflowController,
    CaseWorkflowStatusController,
  ],
  providers: [
    { provide: PipelineTelemetry, useClass: CapturePipelineTelemetry },
    ConfigurationRepository,
    ArchiveRepository,
    CaseRepository,
    StageRollupRepository,
    ModelCatalog,
    ModelService,
    WorkflowService,
    StageRollupService,
    CaseNotifier,
    LiveStatusCache,
    CaseCreationService,
    ArchiverService,
    ArchivePurgeService,
    InvokeService,
    InvokeAdmission,
    DemoSeedService,
  ],
  exports: [
    InvokeAdmission,
    ModelService,
    WorkflowService,
    InvokeService,
    ArchiverService,
    ArchivePurgeService,
    CaseCreationService,
    StageRollupService,
    PipelineTelemetry,
  ],
})
export class EngineModule {
  constructor(retention: TelemetryRetention) {
    // spec: each grid holds up to the last 100000 rows — the two rollup grids' tables too.
    retention.register(ArchiverStagePerformanceCounter);
    retention.register(CaseCreationStagePerformanceCounter);
  }
}
