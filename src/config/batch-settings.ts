import { type Static, Type } from 'typebox';

/** Files and batches (CONTRACT 6.7; docs/batches.md). */
export const BatchSettingsSchema = Type.Object(
  {
    maxFileBytes: Type.Integer({
      minimum: 1,
      default: 200 * 1024 * 1024,
      description:
        'Largest file POST /v1/files accepts (its own bound: not MAX_BODY_BYTES); streamed to the database.',
    }),
    maxRequestsPerFile: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: 50_000,
      description: 'Lines (requests) of one file or one Anthropic Message Batch at most.',
    }),
    maxMessageBatchBytes: Type.Integer({
      minimum: 1,
      default: 32 * 1024 * 1024,
      description: 'Largest body of POST /v1/messages/batches, which comes as one JSON document.',
    }),
    retentionDays: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 30,
      description: 'Files expire (404) and batches with their results are deleted this long after creation.',
    }),
    concurrency: Type.Integer({
      minimum: 1,
      maximum: 256,
      default: 4,
      description: 'Batch requests one instance runs at once while no live request is in flight.',
    }),
    busyConcurrency: Type.Integer({
      minimum: 0,
      maximum: 256,
      default: 1,
      description: 'Batch requests one instance runs at once while live requests are in flight (0: none).',
    }),
    yieldAboveUtilization: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description:
        'While live requests are in flight, no batch request starts when the event loop was busier than this share of the last 100 ms (live traffic first).',
    }),
    leaseSeconds: Type.Integer({
      minimum: 1,
      maximum: 3600,
      default: 60,
      description:
        "How long an instance holds a batch request it took (renewed while it runs): a dead instance's requests are taken again after it.",
    }),
    pollIntervalMs: Type.Integer({
      minimum: 10,
      maximum: 60_000,
      default: 1000,
      description: 'How often an idle runner looks for batch requests to run.',
    }),
    vendorBatches: Type.Boolean({
      default: true,
      description:
        "Send a batch whose every request pins one `openai` or `anthropic` slot (of its own wire format) to that vendor's batch API at its batch price; false: the gateway runs every batch itself.",
    }),
    vendorPollMs: Type.Integer({
      minimum: 10,
      maximum: 3_600_000,
      default: 10_000,
      description:
        "First wait before a vendor's batch is polled; each poll waits twice the last, up to vendorPollMaxMs.",
    }),
    vendorPollMaxMs: Type.Integer({
      minimum: 10,
      maximum: 3_600_000,
      default: 300_000,
      description: "Longest wait between two polls of a vendor's batch.",
    }),
  },
  { additionalProperties: false },
);
export type BatchSettings = Static<typeof BatchSettingsSchema>;
