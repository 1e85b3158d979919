// What the provider sign-in routes share: the `{provider}` path parameter, the configured provider it names, and
// a provider step's failure answered with its reason.
import { z } from "@hono/zod-openapi";
import { OAuthError } from "../../../shared/auth/oauth/errors";
import { findProvider, type Provider } from "../../../shared/auth/oauth/providers";
import { AppError } from "../../../shared/errors";
import type { AuthBindings } from "./env";

export const ProviderParam = z.object({
  provider: z
    .string()
    .max(64)
    .openapi({ param: { name: "provider", in: "path" }, example: "github" }),
});

export function requireProvider(env: AuthBindings, id: string): Provider {
  const provider = findProvider(env, id);
  if (!provider) throw new AppError("provider_not_configured", { detail: `no sign-in provider "${id}" here` });
  return provider;
}

/** Runs a provider call, answering its failure with the failure's reason. */
export async function fromProvider<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof OAuthError) throw new AppError(err.reason, { detail: err.message });
    throw err;
  }
}
