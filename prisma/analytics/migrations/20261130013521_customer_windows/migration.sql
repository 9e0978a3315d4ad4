-- CreateTable
CREATE TABLE "customer_windows" (
    "customer_id" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "placed" INTEGER NOT NULL DEFAULT 0,
    "confirmed" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "revenue" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_windows_pkey" PRIMARY KEY ("customer_id","window_start")
);

-- CreateTable
CREATE TABLE "late_events" (
    "event_id" UUID NOT NULL,
    "customer_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "event_time" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "late_events_pkey" PRIMARY KEY ("event_id")
);

-- CreateTable
CREATE TABLE "partition_watermarks" (
    "topic" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "max_event_time" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "partition_watermarks_pkey" PRIMARY KEY ("topic","partition")
);

-- CreateIndex
CREATE INDEX "late_events_customer_id_event_time_idx" ON "late_events"("customer_id", "event_time");
