import type { EmailCheck } from '../report/report';

interface MaildevMessage {
  readonly to?: readonly { readonly address?: string }[];
}

/** Counts messages per recipient in maildev for this run's `<runId>-<n>@loadgen.test` addresses. */
export function countEmails(
  messages: readonly MaildevMessage[],
  runId: string,
  expected: number,
): EmailCheck {
  const perRecipient = new Map<string, number>();
  for (const message of messages)
    for (const { address } of message.to ?? [])
      if (address?.startsWith(`${runId}-`)) perRecipient.set(address, (perRecipient.get(address) ?? 0) + 1);
  let duplicated = 0;
  for (const count of perRecipient.values()) if (count > 1) duplicated++;
  return { checked: expected, missing: Math.max(0, expected - perRecipient.size), duplicated };
}

export async function checkEmails(maildevUrl: string, runId: string, expected: number): Promise<EmailCheck> {
  try {
    const response = await fetch(`${maildevUrl}/api/email`, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`GET /api/email answered ${response.status}`);
    return countEmails((await response.json()) as MaildevMessage[], runId, expected);
  } catch (error) {
    return {
      checked: 0,
      missing: 0,
      duplicated: 0,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}
