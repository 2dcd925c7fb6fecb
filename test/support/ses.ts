/** An SES receipt event as the receipt rule's Lambda action delivers it (what the ingest handler is given on AWS). */
import type { SESEvent } from 'aws-lambda';
import type { Envelope } from '../../lambdas/usecases/inbound';

export function sesEvent(entry: Envelope): SESEvent {
  const disabled = { status: 'DISABLED' };
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
            spamVerdict: disabled,
            virusVerdict: disabled,
            spfVerdict: disabled,
            dkimVerdict: disabled,
            dmarcVerdict: disabled,
            action: { type: 'Lambda', functionArn: 'arn:aws:lambda:local:000000000000:function:ingest', invocationType: 'Event' },
          },
        },
      },
    ],
  } as unknown as SESEvent;
}
