import { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const emailConfigSchema = baseConfigSchema({
  port: 3003,
  fetchMinBytes: 64 * 1024,
  fetchMaxWaitMs: 250,
}).extend({
  /** Where mail goes out, e.g. smtp://127.0.0.1:1025 (maildev locally, Mailpit in Docker). */
  SMTP_URL: z
    .string()
    .min(1)
    .refine((value) => /^smtps?:\/\/[^/]+/.test(value), { message: 'must be an smtp:// or smtps:// URL' }),
  MAIL_FROM: z.string().min(3).default('Order Pipeline <orders@pipeline.local>'),
});

export type EmailConfig = z.output<typeof emailConfigSchema>;
