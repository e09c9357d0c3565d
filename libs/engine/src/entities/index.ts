import {
  CaseWorkflow,
  CaseWorkflowStatus,
  EntityAnalysisModel,
  EntityAnalysisModelActivationRule,
  EntityAnalysisModelRequestXPath,
} from './configuration.entities';
import {
  ArchiverStagePerformanceCounter,
  CaseCreationStagePerformanceCounter,
  CaseRecord,
  EntityAnalysisModelArchive,
} from './runtime.entities';

export * from './configuration.entities';
export * from './runtime.entities';

export const ENGINE_ENTITIES = [
  EntityAnalysisModel,
  EntityAnalysisModelRequestXPath,
  EntityAnalysisModelActivationRule,
  CaseWorkflow,
  CaseWorkflowStatus,
  CaseRecord,
  EntityAnalysisModelArchive,
  ArchiverStagePerformanceCounter,
  CaseCreationStagePerformanceCounter,
];
