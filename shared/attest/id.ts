// The attestation id (oc-wire-formats §1.4): lowercase hex SHA-256 of the message's UTF-8 bytes, final LF included.
import { sha256Hex } from "../crypto/digest";

export const ATTESTATION_ID = /^[0-9a-f]{64}$/;

export function attestationId(message: string): Promise<string> {
  return sha256Hex(message);
}
