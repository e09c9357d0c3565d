/**
 * What each operation does beyond its summary, by operationId: the descriptions of the OpenAPI document
 * (Spectral's operation-description), merged by createOpenApiDocument into every operation that states none
 * in its own @ApiOperation. One table, so the API's prose reads (and is reviewed) in one place; a test holds
 * it to the operations the service has (test/openapi/document-answers.spec.ts).
 */
const CRUD = (record: string, list: string, permission: string) => ({
  list: `A page of the ${record}s of the caller's tenant that are not deleted, in the order of creation, each with its \`version\` (the ETag of its own GET): \`{ items, total, next }\`, \`limit\` items (100 unless asked, at most 1 000), \`next\` the cursor of the following page (null on the last; Link and X-Total-Count say the same). Needs ${permission}. The answer carries a weak ETag (a hash of the page): If-None-Match answers 304 while the list is the same.`,
  create: `Creates a ${record} in the caller's tenant and answers it with 201, its Location (a GET of it) and its ETag \`"1"\`. Needs ${permission}. The write is recorded in the administrators' audit trail (AdminEvent).`,
  get: `One ${record} of the caller's tenant with its ETag (its row version); If-None-Match with that ETag answers 304. A ${record} of another tenant, or deleted, is a 404. Needs ${permission}.`,
  update: `Changes the members sent (the others stay as they are) and answers the ${record} with its new ETag. With If-Match the change applies only to that version (412 otherwise, nothing written). Needs ${permission}; recorded in AdminEvent.`,
  remove: `Deletes the ${record}: it leaves ${list}, and its GET is a 404 from then on. With If-Match only that version is deleted (412 otherwise). Needs ${permission}; recorded in AdminEvent.`,
});

const MODEL = CRUD('model', 'the list', 'Read Write Model');
const WORKFLOW = CRUD('case workflow', 'the list', 'Read Write Case Workflow');
const STATUS = CRUD('case workflow status', 'the list', 'Read Write Case Workflow');
const TENANT = CRUD('tenant', 'the list', 'Read Write Tenant, in the landlord tenant');
const ROLE = CRUD('role', 'the list', 'Read Write Security Role');
const USER = CRUD('user', 'the list', 'Read Write Security User');

const GRID = (what: string) =>
  `${what} Query parameters as the spec has them: a time window (\`from\`/\`to\`), \`take\` (clamped to 1..100 000), sorting, a consistent sample; the answer is \`{ rows, total, statistics, next }\` with statistics of its columns. More than 1 000 rows are streamed (no ETag); a whole answer carries a weak ETag for If-None-Match. Landlord tenant only.`;
const SERIES = (grid: string) =>
  `One value of ${grid} per time bucket across the whole window (not only the rows a grid page shows), for the console's charts. Landlord tenant only.`;

export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  getReadiness:
    "The load balancer's readiness probe: 200 while the database answers, 503 when it does not. Anonymous callers get the status only; an accepted credential also gets each dependency's state.",
  getLiveness:
    "The liveness probe: 200 while the process's event loop answers HTTP; it reads no database and needs no credential, so a database outage never restarts the process.",
  invokeEntityAnalysisModel:
    'Runs the model on the JSON body: reads its request XPaths (a required field missing or of another type is a 422 naming it), evaluates the active activation rules, and answers at once; the invocation is archived and its cases created in the background. 503 with Retry-After when the Archiver queue or the case backlog is full. `trace=true` adds the trace points. API keys are the usual credential; a session cookie is not refreshed here. Needs permission Invoke.',
  reprocessEntityAnalysisModelEntry:
    'Runs an archived invocation of the model (named by its entry guid) through the model again. Needs permission Invoke; an entry that is not of this model, or a model of another tenant, is a 404.',
  listEntityAnalysisModels: MODEL.list,
  createEntityAnalysisModel: MODEL.create,
  getEntityAnalysisModel: MODEL.get,
  updateEntityAnalysisModel: MODEL.update,
  deleteEntityAnalysisModel: MODEL.remove,
  listRequestXPaths:
    'A page of the fields the model reads from an Invoke body, in the order of creation: each one’s name, JSON path, data type and whether it is required. `{ items, total, next }`, `limit` items (100 unless asked, at most 1 000), `next` the cursor of the following page of this model’s list (null on the last; Link and X-Total-Count say the same). Needs permission Read Write Model. A weak ETag (a hash of the page) answers If-None-Match.',
  createRequestXPath:
    'Adds a field the model reads from Invoke bodies (a name unique in the model, a JSON path, a data type, required or not); answers 201 with its Location. Needs permission Read Write Model; recorded in AdminEvent.',
  getRequestXPath:
    'One request XPath of a model of the caller’s tenant, as the list shows it (the Location its create answered). Needs permission Read Write Model.',
  updateRequestXPath:
    'Changes the members sent of a request XPath (a new name must stay unique in the model: 409). Needs permission Read Write Model; recorded in AdminEvent.',
  deleteRequestXPath:
    'Removes a field from what the model reads from Invoke bodies. Needs permission Read Write Model; recorded in AdminEvent.',
  listActivationRules:
    'A page of the rules evaluated on each invocation of the model, in the order of creation: their JSON Logic condition, whether they are active, and the case workflow and status a match raises a case in. `{ items, total, next }`, `limit` items (100 unless asked, at most 1 000), `next` the cursor of the following page of this model’s list (null on the last; Link and X-Total-Count say the same). Needs permission Read Write Model. A weak ETag (a hash of the page) answers If-None-Match.',
  createActivationRule:
    'Adds a rule: a JSON Logic condition over the model’s fields; with a case workflow and status (and the field that keys the case) a match raises a case. A condition the engine cannot run, or a workflow or status of another tenant, is a 422. Answers 201 with its Location. Needs permission Read Write Model.',
  getActivationRule:
    'One activation rule of a model of the caller’s tenant, as the list shows it (the Location its create answered). Needs permission Read Write Model.',
  updateActivationRule:
    'Changes the members sent of an activation rule, checked as a create is (422 for a condition the engine cannot run). Needs permission Read Write Model; recorded in AdminEvent.',
  deleteActivationRule:
    'Removes the rule from what the model evaluates on each invocation. Needs permission Read Write Model; recorded in AdminEvent.',
  listCaseWorkflows: WORKFLOW.list,
  createCaseWorkflow: WORKFLOW.create,
  getCaseWorkflow: WORKFLOW.get,
  updateCaseWorkflow: WORKFLOW.update,
  deleteCaseWorkflow: WORKFLOW.remove,
  listCaseWorkflowStatuses: `${STATUS.list} \`caseWorkflowGuid\` narrows it to one workflow (a cursor of one workflow's list is refused by another's); without it, the statuses of the workflows that are not deleted.`,
  createCaseWorkflowStatus: `${STATUS.create} A status may send an e-mail and call an HTTP endpoint when a case enters it ({CaseKeyValue} in the templates).`,
  getCaseWorkflowStatus: STATUS.get,
  updateCaseWorkflowStatus: STATUS.update,
  deleteCaseWorkflowStatus: STATUS.remove,
  getSignInOptions:
    'The ways the Login page offers to sign in (user name and password, Negotiate, OpenID Connect) and what the password form needs, from the service’s settings. Anonymous; the same answer for every caller, so it reveals nothing about users.',
  signInByUserNamePassword:
    'Checks the password and answers the session token in the body and in the `authentication-jwt` cookie, or 202 with a passcode token when a second factor is on. With newPassword and repeatNewPassword it changes an expired password. Every attempt writes a UserLogin row; wrong passwords lock the account after PasswordAttempts; rate-limited per address (429, RateLimit headers). JSON only, never cross-site.',
  signInByPasscode:
    'Completes a sign-in that answered 202: the passcode token and the one-time passcode, checked by the second-factor provider; answers the session as the password sign-in does. Shares the password sign-in’s rate limit per address.',
  changePassword:
    'Changes the signed-in user’s own password: their current one, then the new one twice, checked against the password rules. Needs a session (bearer or cookie), not an API key; JSON only, never cross-site.',
  signInByNegotiate:
    'Signs in the Windows (Kerberos) user the browser presents through SPNEGO; without a ticket it answers 401 with `WWW-Authenticate: Negotiate` to start the handshake. Offered when NegotiateAuthentication is on.',
  getWirePasswordHash:
    'Whether the browser must send this user’s password as its SHA-256 wire hash. Unknown names answer like known ones (at a set rate), so the answer tells nothing about which names exist. Rate-limited per address in a bucket of its own.',
  getPasswordPublicKey:
    'The RSA public key the Login page encrypts a password with (WebCrypto RSA-OAEP) before sending it, so it never travels in plain text; anonymous.',
  getSession:
    'The caller as the service sees them (user, tenant, permissions) and their session, read from the database on every request; a cookie-authenticated call gets its cookie refreshed, as on every route but Invoke.',
  verifyMockPasscode:
    'Stands in for a second-factor provider while MultifactorAuthenticationEndpoint is unset: accepts the passcode 000000 for everybody, only while MultifactorAuthenticationClientKey is at its shipped default. Never use it in production.',
  logout:
    'Ends the session the request carries (bearer or cookie: its token is refused from then on, on every node), deletes both cookies and writes a UserLogout row. Anonymous and body-free: it always answers 200, with X-Service-Logout-Warning when the revocation could not be written.',
  revokeUserTokens:
    'Ends every session of the user at once (TokensValidFrom moves to now; every node refuses older tokens on their next request) and writes their UserLogout rows. API keys are not touched. Refused (403) for a user who holds a permission the caller lacks.',
  streamTelemetry:
    'A text/event-stream of this node: an open event, a heartbeat every few seconds, the events it publishes, and a closed event when the node drains. One node only: behind a balancer, each connection sees its own node.',
  listTenants: TENANT.list,
  createTenant: TENANT.create,
  getTenant: TENANT.get,
  updateTenant: TENANT.update,
  deleteTenant: `${TENANT.remove} The last landlord tenant cannot be deleted (409).`,
  listPermissions:
    'Every permission a role can hold, as the spec numbers and names them, for the role editor. Needs permission Read Write Security Role.',
  listRoles: ROLE.list,
  createRole: `${ROLE.create}`,
  getRole: ROLE.get,
  updateRole: `${ROLE.update}`,
  deleteRole: `${ROLE.remove} A role that users still hold cannot be deleted (409).`,
  listUsers: `${USER.list} \`search\` finds users by name.`,
  createUser: `${USER.create} The password is checked against the password rules; the role must be one the caller may give.`,
  listAssignableRoles:
    'A page of the roles a user administrator may give (those of live tenants holding no permission the caller lacks; the landlord’s: every tenant’s), in the order of creation, with their tenant’s name, so the user editor names roles without the right to manage them (Read Write Security Role). `{ items, total, next }`, `limit` items (100 unless asked, at most 1 000), `next` the cursor of the following page (null on the last; Link and X-Total-Count say the same). Needs permission Read Write Security User.',
  getUser: `${USER.get} The answer also shows sign-in state (the lock, failed attempts, last sign-in), which the ETag does not cover.`,
  updateUser: `${USER.update} Nobody acts on a user who holds a permission they lack (403).`,
  deleteUser: `${USER.remove} Nobody deletes themselves (409).`,
  deactivateUser:
    'Marks the user inactive: every session ends and their API keys stop working until reactivated. Honours If-Match. Refused (403) for a user who holds a permission the caller lacks; recorded in AdminEvent.',
  resetUserPassword:
    'Sets a new password for another user of the tenant (checked against the password rules), optionally expired so they must change it at their next sign-in; their sessions end. Honours If-Match; recorded in AdminEvent.',
  unlockUser:
    'Clears the automatic password lock and the failure count so the password works again at once. Sessions signed in before are not touched. Honours If-Match; recorded in AdminEvent.',
  getActiveSessions:
    "The count the console's home page shows: users of the caller's tenant (the landlord's: every tenant) whose latest sign-in is within the absolute session lifetime and not cut since (logout, Revoke Sessions, a password change or reset, deactivation). Tokens are stateless, so an idle session counts until its absolute end and a user on two devices counts once. Needs Read Write Security User.",
  getRuntime:
    "This node's event loop delay and the database's sizes: what an operator looks at when a node is slow or the database grows. Landlord tenant only; one node only behind a balancer.",
  getArchiverStagePerformanceCounters: GRID(
    'The Archiver’s rollups: per minute, per Model and stage, how many invocations and how long they took.',
  ),
  getArchiverWarnings: GRID(
    'Each Archiver stage that took longer than ArchiverWarnThresholdMilliseconds, with its Model and duration.',
  ),
  getCaseCreationStagePerformanceCounters: GRID(
    'The case creation rollups: per minute and stage, how many cases and how long they took.',
  ),
  getCaseCreationWarnings: GRID(
    'Each case creation stage that took longer than CaseCreationWarnThresholdMilliseconds.',
  ),
  getModelInvokeWarnings: GRID(
    'Each Invoke trace point slower than its Model’s LogsWarnThresholdMilliseconds.',
  ),
  getCaptureQueueHealth: GRID(
    'Per minute and capture queue, its depth and the rows it dropped: whether telemetry is being lost.',
  ),
  getArchiverStagePerformanceCounterSeries: SERIES('totalMicroseconds'),
  getArchiverWarningSeries: SERIES('durationMicroseconds'),
  getCaseCreationStagePerformanceCounterSeries: SERIES('totalMicroseconds'),
  getCaseCreationWarningSeries: SERIES('durationMicroseconds'),
  getModelInvokeWarningSeries: SERIES('sinceLastEntryMicroseconds'),
  getCaptureQueueHealthSeries: SERIES('queueDepth'),
  getUserLogins:
    'Every sign-in attempt, accepted or refused, with its failure type, client address and user agent, as a grid (window, sorting, statistics) or a CSV download (`format=csv`). Needs permission Read Security Audit; a tenant administrator sees their own tenant’s rows, the landlord every row.',
  getUserLogouts:
    'Every session that was cut (a logout, Revoke Sessions, an administrator’s action), as a grid (window, sorting, statistics) or a CSV download (`format=csv`). Needs permission Read Security Audit; a tenant administrator sees their own tenant’s rows.',
  getAdminEvents:
    'Each administrative write with who made it, the record and its changed members (secrets only as "changed"), and the refused attempts with their problem. Needs permission Read Security Audit; scoped by the target’s tenant.',
  createApiKey:
    'Creates an API key for a user of the caller’s own tenant and answers the raw key once (only its hash is stored); use it in the `x-api-key` header. Refused (403) for a user who holds a permission the caller lacks. Recorded in AdminEvent.',
  listApiKeys:
    'The API keys of one user of the caller’s own tenant (`userRegistryGuid`), revoked ones included: name, display identifier, created and revoked; never the keys themselves. Paged like every list: `{ items, total, next }`, `limit` (100 unless asked, at most 1 000), `cursor`.',
  revokeApiKey:
    'Revokes the key: every node refuses it within moments (Redis publish/subscribe; at worst the one-minute cache refresh). The record stays, with who revoked it and when. Recorded in AdminEvent.',
};

/** Gives every operation with no description of its own the one of the table. */
export function addOperationDescriptions(
  operations: Iterable<{ operationId?: string; description?: string }>,
): void {
  for (const op of operations)
    if (!op.description && op.operationId && OPERATION_DESCRIPTIONS[op.operationId])
      op.description = OPERATION_DESCRIPTIONS[op.operationId];
}
