import type { DashboardSpec, PanelSpec } from './dashboard.js';

/**
 * The dashboards of the metrics a kop manager exports (kop/runtime's manager metrics, named as
 * controller-runtime names them, plus prom-client's process and Node.js metrics). Every metric
 * queried here is checked against a running manager's /metrics by test/e2e/plugins-grafana.test.ts.
 */

// Prometheus adds `job` and `instance` to every series it scrapes; the dashboards filter on them.
const JOB = 'job=~"$job"';
const SCOPE = `${JOB}, controller=~"$controller"`;
const RATE = '[$__rate_interval]';

/** p50/p90/p99 of a histogram of seconds, per controller. */
function quantiles(metric: string, by: string): PanelSpec['queries'] {
  return [0.5, 0.9, 0.99].map((q) => ({
    expr: `histogram_quantile(${q}, sum by (${by}, le) (rate(${metric}_bucket{${SCOPE}}${RATE})))`,
    legend: `{{${by}}} p${Math.round(q * 100)}`,
  }));
}

/** Reconciles and work queues, per controller (grafana/controller-runtime-metrics.json). */
export const CONTROLLER_RUNTIME_DASHBOARD: DashboardSpec = {
  uid: 'kop-controller-runtime',
  title: 'Operator / Controllers',
  description: 'Reconciles and work queues of a kop manager, per controller.',
  variables: [
    { name: 'job', label: 'Job', query: 'label_values(controller_runtime_reconcile_total, job)' },
    {
      name: 'controller',
      label: 'Controller',
      query: `label_values(controller_runtime_reconcile_total{${JOB}}, controller)`,
    },
  ],
  rows: [
    {
      title: 'Reconciles',
      panels: [
        {
          title: 'Reconciles per second, by result',
          description:
            'Finished reconciles: success, error, requeue (asked to look again) and requeue_after (asked to look again later).',
          unit: 'ops',
          queries: [
            {
              expr: `sum by (controller, result) (rate(controller_runtime_reconcile_total{${SCOPE}}${RATE}))`,
              legend: '{{controller}} {{result}}',
            },
          ],
        },
        {
          title: 'Reconcile errors per second',
          description:
            'Reconciles that threw (retried with backoff) and those that threw a TerminalError (not retried until the object changes).',
          unit: 'ops',
          queries: [
            {
              expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{${SCOPE}}${RATE}))`,
              legend: '{{controller}} errors',
            },
            {
              expr: `sum by (controller) (rate(controller_runtime_terminal_reconcile_errors_total{${SCOPE}}${RATE}))`,
              legend: '{{controller}} terminal',
            },
          ],
        },
        {
          title: 'Reconcile duration',
          description: 'How long one reconcile takes, as quantiles over the interval.',
          unit: 's',
          queries: quantiles('controller_runtime_reconcile_time_seconds', 'controller'),
        },
        {
          title: 'Workers busy / allowed',
          description: 'Reconciles running now against the most that may run at once (maxConcurrentReconciles).',
          unit: 'short',
          queries: [
            {
              expr: `sum by (controller) (controller_runtime_active_workers{${SCOPE}})`,
              legend: '{{controller}} busy',
            },
            {
              expr: `max by (controller) (controller_runtime_max_concurrent_reconciles{${SCOPE}})`,
              legend: '{{controller}} allowed',
            },
          ],
        },
      ],
    },
    {
      title: 'Work queues',
      panels: [
        {
          title: 'Queue depth',
          description: 'Keys waiting to be reconciled. A depth that only grows means the controller cannot keep up.',
          unit: 'short',
          queries: [{ expr: `sum by (controller) (workqueue_depth{${SCOPE}})`, legend: '{{controller}}' }],
        },
        {
          title: 'Adds and retries per second',
          description: 'Keys added to the queue (changes seen), and keys put back after an error (backoff).',
          unit: 'ops',
          queries: [
            {
              expr: `sum by (controller) (rate(workqueue_adds_total{${SCOPE}}${RATE}))`,
              legend: '{{controller}} adds',
            },
            {
              expr: `sum by (controller) (rate(workqueue_retries_total{${SCOPE}}${RATE}))`,
              legend: '{{controller}} retries',
            },
          ],
        },
        {
          title: 'Time waiting in the queue',
          description: 'From a key being added to a worker taking it.',
          unit: 's',
          queries: quantiles('workqueue_queue_duration_seconds', 'controller'),
        },
        {
          title: 'Time processing an item',
          description: 'From a worker taking a key to marking it done.',
          unit: 's',
          queries: quantiles('workqueue_work_duration_seconds', 'controller'),
        },
        {
          title: 'Work in flight',
          description:
            'Seconds of unfinished work summed over the keys being processed, and the age of the oldest: values that keep growing mean a stuck reconcile.',
          unit: 's',
          queries: [
            {
              expr: `max by (controller) (workqueue_unfinished_work_seconds{${SCOPE}})`,
              legend: '{{controller}} unfinished',
            },
            {
              expr: `max by (controller) (workqueue_longest_running_processor_seconds{${SCOPE}})`,
              legend: '{{controller}} longest',
            },
          ],
        },
      ],
    },
    {
      title: 'API client',
      panels: [
        {
          title: 'API requests per second, by code',
          description:
            'Requests the manager sent to the apiserver, each retry counted, by HTTP status code and method (<error>: no answer).',
          unit: 'reqps',
          queries: [
            {
              expr: `sum by (code, method) (rate(rest_client_requests_total{${JOB}}${RATE}))`,
              legend: '{{method}} {{code}}',
            },
          ],
        },
        {
          title: 'API request latency p99, by verb',
          description:
            'How long a call to the apiserver takes, its retries and client-side rate-limiter waits included.',
          unit: 's',
          queries: [
            {
              expr: `histogram_quantile(0.99, sum by (verb, le) (rate(rest_client_request_duration_seconds_bucket{${JOB}}${RATE})))`,
              legend: '{{verb}} p99',
            },
          ],
        },
        {
          title: 'Client-side rate limiter wait p99',
          description:
            'How long requests waited for the client-side limiter (only when a qps limit is set; off by default).',
          unit: 's',
          queries: [
            {
              expr: `histogram_quantile(0.99, sum by (verb, le) (rate(rest_client_rate_limiter_duration_seconds_bucket{${JOB}}${RATE})))`,
              legend: '{{verb}} p99',
            },
          ],
        },
        {
          title: 'API retries per second, by code',
          description:
            'Requests sent again: after a 429 (the apiserver throttling), a 5xx with Retry-After, or a reset connection.',
          unit: 'reqps',
          queries: [
            {
              expr: `sum by (code, verb) (rate(rest_client_request_retries_total{${JOB}}${RATE}))`,
              legend: '{{verb}} {{code}}',
            },
          ],
        },
      ],
    },
    {
      title: 'Manager',
      panels: [
        {
          title: 'Leader',
          description: 'Which replica holds the leader Lease (1) and runs the controllers.',
          unit: 'short',
          queries: [
            { expr: `max by (instance, name) (leader_election_master_status{${JOB}})`, legend: '{{instance}}' },
          ],
        },
        {
          title: 'Watch restarts per second',
          description:
            'Informers replacing their watch, by reason: closed, gone (410, relisted), silent (no event or bookmark in time) or error.',
          unit: 'ops',
          queries: [
            {
              expr: `sum by (informer, reason) (rate(kop_informer_watch_restarts_total{${JOB}}${RATE}))`,
              legend: '{{informer}} {{reason}}',
            },
          ],
        },
        {
          title: 'Webhook requests per second, by code',
          description: 'Admission and conversion requests the webhook server answered, by HTTP status code.',
          unit: 'reqps',
          queries: [
            {
              expr: `sum by (webhook, code) (rate(controller_runtime_webhook_requests_total{${JOB}}${RATE}))`,
              legend: '{{webhook}} {{code}}',
            },
          ],
        },
        {
          title: 'Webhook latency p99 and requests in flight',
          description: 'How long the webhook server takes to answer, and requests being served now.',
          unit: 's',
          queries: [
            {
              expr: `histogram_quantile(0.99, sum by (webhook, le) (rate(controller_runtime_webhook_latency_seconds_bucket{${JOB}}${RATE})))`,
              legend: '{{webhook}} p99',
            },
            {
              expr: `sum by (webhook) (controller_runtime_webhook_requests_in_flight{${JOB}})`,
              legend: '{{webhook}} in flight',
            },
          ],
        },
      ],
    },
  ],
};

const POD = 'job=~"$job", instance=~"$instance"';

/** CPU, memory and the Node.js runtime of the manager process (grafana/controller-resources-metrics.json). */
export const CONTROLLER_RESOURCES_DASHBOARD: DashboardSpec = {
  uid: 'kop-controller-resources',
  title: 'Operator / Resources',
  description: 'CPU, memory, file descriptors and the Node.js runtime of a kop manager process.',
  variables: [
    { name: 'job', label: 'Job', query: 'label_values(process_start_time_seconds, job)' },
    { name: 'instance', label: 'Instance', query: `label_values(process_start_time_seconds{${JOB}}, instance)` },
  ],
  rows: [
    {
      title: 'Process',
      panels: [
        {
          title: 'CPU',
          description: 'CPU seconds used per second (1 = one core), user and system.',
          unit: 'short',
          queries: [
            {
              expr: `sum by (instance) (rate(process_cpu_user_seconds_total{${POD}}${RATE}))`,
              legend: '{{instance}} user',
            },
            {
              expr: `sum by (instance) (rate(process_cpu_system_seconds_total{${POD}}${RATE}))`,
              legend: '{{instance}} system',
            },
          ],
        },
        {
          title: 'Memory',
          description:
            "Resident memory of the process (compare with the container's limit), and the V8 heap in use and allocated.",
          unit: 'bytes',
          queries: [
            { expr: `process_resident_memory_bytes{${POD}}`, legend: '{{instance}} resident' },
            { expr: `nodejs_heap_size_used_bytes{${POD}}`, legend: '{{instance}} heap used' },
            { expr: `nodejs_heap_size_total_bytes{${POD}}`, legend: '{{instance}} heap total' },
          ],
        },
        {
          title: 'Open file descriptors',
          description: 'Open against allowed; sockets to the apiserver count here.',
          unit: 'short',
          queries: [
            { expr: `process_open_fds{${POD}}`, legend: '{{instance}} open' },
            { expr: `process_max_fds{${POD}}`, legend: '{{instance}} max' },
          ],
        },
        {
          title: 'Uptime',
          description: 'Time since the process started; a reset means a restart.',
          unit: 's',
          kind: 'stat',
          queries: [{ expr: `time() - process_start_time_seconds{${POD}}`, legend: '{{instance}}' }],
        },
      ],
    },
    {
      title: 'Node.js',
      panels: [
        {
          title: 'Event loop lag',
          description: 'How late timers fire: a busy loop delays every reconcile and the health probes.',
          unit: 's',
          queries: [
            { expr: `nodejs_eventloop_lag_p50_seconds{${POD}}`, legend: '{{instance}} p50' },
            { expr: `nodejs_eventloop_lag_p99_seconds{${POD}}`, legend: '{{instance}} p99' },
          ],
        },
        {
          title: 'Garbage collection',
          description: 'Seconds per second spent collecting garbage, by kind.',
          unit: 'short',
          queries: [
            {
              expr: `sum by (instance, kind) (rate(nodejs_gc_duration_seconds_sum{${POD}}${RATE}))`,
              legend: '{{instance}} {{kind}}',
            },
          ],
        },
        {
          title: 'Active handles and requests',
          description: 'Open sockets, timers and pending requests of libuv.',
          unit: 'short',
          queries: [
            { expr: `nodejs_active_handles_total{${POD}}`, legend: '{{instance}} handles' },
            { expr: `nodejs_active_requests_total{${POD}}`, legend: '{{instance}} requests' },
          ],
        },
        {
          title: 'External memory',
          description: 'Memory of buffers and other objects outside the V8 heap.',
          unit: 'bytes',
          queries: [{ expr: `nodejs_external_memory_bytes{${POD}}`, legend: '{{instance}}' }],
        },
      ],
    },
  ],
};
