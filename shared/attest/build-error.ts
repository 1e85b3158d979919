// The typed error of the OC Attest builders: an input that cannot be rendered as a canonical message.
// `code` says which field; the message names the rule (the reject vectors match "newline", "comma", "protocol").

export type AttestBuildErrorCode =
  | "identity_protocol"
  | "identity_identifier"
  | "identities_too_long"
  | "address"
  | "nonce"
  | "issued_at"
  | "extension_key"
  | "extension_value"
  | "message"
  | "attestation_id";

export class AttestBuildError extends Error {
  override readonly name = "AttestBuildError";
  constructor(
    readonly code: AttestBuildErrorCode,
    message: string,
  ) {
    super(message);
  }
}
