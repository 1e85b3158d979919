// drizzle-kit generates d1-migrations/NNNN_*.sql from shared/db/schema.ts (`npm run db:generate`).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./shared/db/schema.ts",
  out: "./d1-migrations",
});
