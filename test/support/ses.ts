/** An SES receipt event as the receipt rule's Lambda action delivers it (what the ingest handler is given on AWS). */
import type { SESEvent } from 'aws-lambda';
import type { Envelope } from '../../lambdas/usecases/inbound';

/** `verdicts`: statuses other than DISABLED (what the local form always has), e.g. `{ virus: 'FAIL' }`. */
export function sesEvent(entry: Envelope, verdicts: Partial<Record<'spam' | 'virus' | 'spf' | 'dkim' | 'dmarc', string>> = {}): SESEvent {
  const status = (name: keyof typeof verdicts) => ({ status: verdicts[name] ?? 'DISABLED' });
  return {
    Records: [
      {
        eventSource: 'aws:ses',
        eventVersion: '1.0',
        ses: {
          mail: {
            timestamp: entry.receivedAt,
            source: entry.envelopeFrom,
            messageId: entry.mailId,
            destination: entry.recipients,
            headersTruncated: false,
            headers: [],
            commonHeaders: { returnPath: entry.envelopeFrom, date: entry.receivedAt, messageId: entry.mailId },
          },
          receipt: {
            timestamp: entry.receivedAt,
            processingTimeMillis: 0,
            recipients: entry.recipients,
            spamVerdict: status('spam'),
            virusVerdict: status('virus'),
            spfVerdict: status('spf'),
            dkimVerdict: status('dkim'),
            dmarcVerdict: status('dmarc'),
            action: { type: 'Lambda', functionArn: 'arn:aws:lambda:local:000000000000:function:ingest', invocationType: 'Event' },
          },
        },
      },
    ],
  } as unknown as SESEvent;
}
