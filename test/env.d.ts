// The bindings the tests see: the auth worker's, plus what vitest.config.ts injects.
import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { AuthBindings } from "../workers/auth/src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AuthBindings {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
