// Webhook receiver helper (issue 8, part 3): verify the fleet's deliveries, handle each once (dedupe by idempotency
// key), and a ready Fetch-API receiver.
export {
  type HandleWebhookInput,
  handleWebhook,
  type VerifiedWebhook,
  type WebhookAnswer,
  type WebhookRefusal,
} from "./handle";
export {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  type IdempotencyStore,
  type KvLike,
  kvIdempotencyStore,
  MemoryIdempotencyStore,
} from "./idempotency";
export { type ReceiveOptions, receiveWebhook } from "./receive";
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
  type WebhookVerification,
} from "./verify";
