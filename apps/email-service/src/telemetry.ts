import { startTelemetry } from '@pipeline/observability';

// Its own module, imported first by main.ts: the SDK must patch http and pg before they load.
startTelemetry({ service: 'email-service' });
