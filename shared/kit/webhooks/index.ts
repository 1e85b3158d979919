// Webhook receiver helper (issue 8, part 3): verify the fleet's deliveries, dedupe them, and a ready receiver.
export {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  type IdempotencyStore,
  type KvLike,
  kvIdempotencyStore,
  MemoryIdempotencyStore,
} from "./idempotency";
export { type ReceiveOptions, receiveWebhook, type VerifiedWebhook } from "./receive";
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
  type WebhookVerification,
} from "./verify";
