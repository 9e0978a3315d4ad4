-- CreateEnum
CREATE TYPE "EmailKind" AS ENUM ('CONFIRMATION', 'CANCELLATION');

-- CreateTable
CREATE TABLE "sent_emails" (
    "event_id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "kind" "EmailKind" NOT NULL,
    "recipient" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sent_emails_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "sent_emails_order_id_idx" ON "sent_emails"("order_id");
