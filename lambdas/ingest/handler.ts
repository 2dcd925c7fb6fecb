/**
 * The SES receipt rule's Lambda action (Event invocation), run after the S3 action stored the raw mail.
 * Drops (unknown inbox, quota …) are metrics, not errors, and so are messages stored in their degraded form (a mail
 * that cannot be parsed or stored in full); only transient faults throw, so that Lambda retries and, in the end,
 * the on-failure destination keeps the event for replay.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SESEvent, SESReceipt } from 'aws-lambda';
import { VERDICTS, type AuthVerdicts, type Verdict } from '../core/model';
import { currentIngestContext } from '../app/ingest';
import { ingestMessage, type InboundMail } from '../usecases/ingest';
import { logger } from '../app/logger';

const metrics = new Metrics({ namespace: 'TempMail', serviceName: 'ingest' });

const KNOWN = new Set<string>(VERDICTS);
const verdict = (v: { status?: string } | undefined): Verdict => (KNOWN.has(v?.status ?? '') ? (v!.status as Verdict) : 'DISABLED');

export function inboundMailFromSes(record: SESEvent['Records'][number]): InboundMail {
  const { mail, receipt } = record.ses;
  const r = receipt as SESReceipt & { dmarcVerdict?: { status: string } };
  const verdicts: AuthVerdicts = {
    spf: verdict(r.spfVerdict),
    dkim: verdict(r.dkimVerdict),
    dmarc: verdict(r.dmarcVerdict),
    spam: verdict(r.spamVerdict),
    virus: verdict(r.virusVerdict),
  };
  return {
    mailId: mail.messageId,
    recipients: receipt.recipients,
    envelopeFrom: mail.source,
    receivedAtMs: Date.parse(receipt.timestamp || mail.timestamp) || Date.now(),
    verdicts,
  };
}

export const handler = async (event: SESEvent): Promise<{ stored: number; dropped: number }> => {
  const context = currentIngestContext();
  let stored = 0;
  let dropped = 0;
  try {
    for (const record of event.Records) {
      const outcomes = await ingestMessage(context, inboundMailFromSes(record));
      for (const o of outcomes) {
        if (o.outcome === 'stored') {
          stored++;
          if (o.degraded) {
            logger.warn('message stored in its degraded form', { mailId: record.ses.mail.messageId, messageId: o.messageId, reason: o.degraded });
            metrics.addMetric('MessagesDegraded', MetricUnit.Count, 1);
          }
        }
        else if (o.outcome !== 'duplicate') {
          dropped++;
          logger.info('recipient dropped', { reason: o.outcome, mailId: record.ses.mail.messageId });
          metrics.addMetric(o.outcome === 'quota' || o.outcome === 'storage' ? 'QuotaHits' : 'MessagesDropped', MetricUnit.Count, 1);
        } else {
          logger.info('duplicate delivery ignored', { mailId: record.ses.mail.messageId, messageId: o.messageId });
        }
      }
    }
    if (stored) metrics.addMetric('MessagesReceived', MetricUnit.Count, stored);
    return { stored, dropped };
  } catch (error) {
    logger.error('ingest failed; it will be retried', { error: error as Error });
    throw error;
  } finally {
    metrics.publishStoredMetrics();
  }
};
