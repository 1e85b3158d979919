// Webhook library for the fleet registry: secrets, delivery signing, endpoint URL guard, retry schedule.
export { type AddressClass, classifyIpAddress } from "./ip-address";
export {
  DELIVERY_TIMEOUT_MS,
  errorMessage,
  MAX_ATTEMPTS,
  MAX_ERROR_MESSAGE_LENGTH,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  RETRY_JITTER_RATIO,
} from "./schedule";
export {
  MIN_MASTER_KEY_LENGTH,
  newWebhookSecret,
  openSecret,
  SECRET_PREFIX,
  sealSecret,
  secretKeyBytes,
} from "./secrets";
export {
  type DeliveryInput,
  deliveryHeaders,
  type RawBody,
  type SignatureCheck,
  STANDARD_TOLERANCE_SECONDS,
  verifyServiceSignature,
  verifyStandardSignature,
} from "./signing";
export { checkEndpointUrl, MAX_ENDPOINT_URL_LENGTH, type UrlCheck, type UrlGuardOptions } from "./url-guard";
