// @lineup-agents/sdk: connect a Node agent to a LineUp hub (LAP/0.1, docs/protocol.md). Pair once, take tasks,
// report progress, ask the person, resume after a restart without asking twice (docs/sdk-typescript.md).

export { AgentClient, CLOSE_REPLACED, CLOSE_REVOKED, describeError, readOpenTask } from "./client.js";
export type { AgentClientOptions, EventHandler, HubFrame, TaskHandler, ToolHandler } from "./client.js";
export { ALLOW_INSECURE_ENV, InsecureHub, isLoopbackHost } from "./cleartext.js";
export { Credential, NOT_REPLACED, codeHash, loadCredential, maySend, pair, pairOrLoad, saveCredential } from "./credentials.js";
export type { CredentialFields, PairOptions, PairOrLoadOptions, Replacement } from "./credentials.js";
export {
  AuthError, ClientStopped, HubError, OutboxFull, PinMismatch, RETRYABLE, ReplacedError, SdkError, ToolCallError,
} from "./errors.js";
export { downloadFile, guessMimeType, uploadFile } from "./files.js";
export type { DownloadOptions } from "./files.js";
export { consoleLogger, silentLogger } from "./log.js";
export type { LogLevel, Logger } from "./log.js";
export { Outbox } from "./outbox.js";
export {
  ACTIVE_TASK_STATUSES, ChildTask, MessageStream, Outcome, TERMINAL_TASK_STATUSES, TaskHandle, stableId,
} from "./tasks.js";
export type {
  ApprovalOptions, ArtifactOptions, ChoiceOptions, InputOptions, OpenTask, OutcomeKind, ReviewOptions, SendFields,
  StoredFile, TaskStatus, UploadOptions,
} from "./tasks.js";
export { fingerprintOf, normaliseFingerprint } from "./tlspin.js";
export { definitionProblem, frameProblem } from "./validate.js";
export * as approvals from "./approvals.js";
export { unifiedDiff } from "./diff.js";
export * as protocol from "./protocol.js";
export type {
  Ack, AgentToHub, ApprovalSubject, Envelope, HubToAgent, HubToClient, InteractionOption, InteractionSpec, JsonObject,
} from "./protocol.js";
