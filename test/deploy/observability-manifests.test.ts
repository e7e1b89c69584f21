/**
 * The deploy artefacts of SPEC 16, checked offline: the overlays render with kustomize
 * (kubectl kustomize), every object validates against its Kubernetes or prometheus-operator
 * schema (kubernetes-models, @kubernetes-models/prometheus-operator: the published OpenAPI
 * schemas, compiled) and type-checks field by field against the same models, the Grafana
 * dashboard against @grafana/schema's Dashboard; the alerts and panels use metric names the
 * code really registers, and every alert has a runbook.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { typeErrors } from './typecheck';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');
const MONITORING = path.join(ROOT, 'deploy', 'k8s', 'components', 'monitoring');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

/** Where each kind's model lives: its class (runtime validation) and its interface (type check). */
const MODELS: Record<string, { module: string; type: string }> = {
  'v1/Namespace': { module: 'kubernetes-models/v1/Namespace', type: 'INamespace' },
  'v1/ConfigMap': { module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Secret': { module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  'v1/Service': { module: 'kubernetes-models/v1/Service', type: 'IService' },
  'apps/v1/Deployment': { module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'autoscaling/v2/HorizontalPodAutoscaler': { module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', type: 'IHorizontalPodAutoscaler' },
  'policy/v1/PodDisruptionBudget': { module: 'kubernetes-models/policy/v1/PodDisruptionBudget', type: 'IPodDisruptionBudget' },
  'networking.k8s.io/v1/NetworkPolicy': { module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy', type: 'INetworkPolicy' },
  'networking.k8s.io/v1/Ingress': { module: 'kubernetes-models/networking.k8s.io/v1/Ingress', type: 'IIngress' },
  'monitoring.coreos.com/v1/PodMonitor': { module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor', type: 'IPodMonitor' },
  'monitoring.coreos.com/v1/PrometheusRule': { module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule', type: 'IPrometheusRule' },
};

function render(overlay: string): Manifest[] {
  const text = execFileSync('kubectl', ['kustomize', path.join(ROOT, 'deploy', 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw doc.errors[0];
    const manifest = doc.toJS() as Manifest;
    // kustomize wraps a Secret's long base64 values at 70 columns; the API server's decoder
    // skips the line breaks, the schema's `byte` format does not.
    if (manifest.kind === 'Secret' && manifest.data) {
      for (const [key, value] of Object.entries(manifest.data)) manifest.data[key] = value.replace(/\n/g, '');
    }
    return manifest;
  });
}

const modelOf = (m: Manifest) => MODELS[`${m.apiVersion}/${m.kind}`];
const nameOf = (m: Manifest) => `${m.kind}/${m.metadata.name}`;

function schemaErrors(manifests: Manifest[]): string[] {
  const errors: string[] = [];
  for (const manifest of manifests) {
    const model = modelOf(manifest);
    if (!model) {
      errors.push(`${nameOf(manifest)}: no schema known for ${manifest.apiVersion} ${manifest.kind}`);
      continue;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Model = (require(model.module) as Record<string, new (data: unknown) => { validate(): void }>)[manifest.kind];
    try {
      new Model(manifest).validate();
    } catch (err) {
      errors.push(`${nameOf(manifest)}: ${(err as Error).message}`);
    }
  }
  return errors;
}

describe.each(['production', 'dev'])('the %s overlay', (overlay) => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(overlay);
  });

  it('renders, and every object validates against its schema and type-checks field by field', () => {
    expect(manifests.length).toBeGreaterThan(20);
    expect(schemaErrors(manifests)).toEqual([]);
    expect(typeErrors(manifests.map((m) => ({ type: modelOf(m).type, from: modelOf(m).module, value: m, name: nameOf(m) })))).toEqual([]);
  });
});

describe('the production overlay\'s observability', () => {
  let manifests: Manifest[];
  const find = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  beforeAll(() => {
    manifests = render('production');
  });

  it('points every process at the collector and gives each service a metrics port Prometheus scrapes', () => {
    const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name.startsWith('propdesk-config'))!;
    expect(config.data).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
    // Each component names its own service: a shared OTEL_SERVICE_NAME would merge them.
    expect(config.data?.OTEL_SERVICE_NAME).toBeUndefined();
    expect(find('Deployment', 'otel-collector')).toBeDefined();
    expect(find('Service', 'otel-collector')).toBeDefined();
    for (const name of ['panel', 'auth', 'accounts', 'webhooks']) {
      const deployment = find('Deployment', name) as unknown as { spec: { template: { spec: { containers: Array<{ ports: Array<{ name: string; containerPort: number }> }> } } } };
      expect(deployment.spec.template.spec.containers[0].ports).toContainEqual(expect.objectContaining({ name: 'metrics', containerPort: 9464 }));
    }
    expect(find('PodMonitor', 'propdesk-services')?.spec).toMatchObject({ podMetricsEndpoints: [{ port: 'metrics', path: '/metrics' }] });
    expect(find('PodMonitor', 'propdesk-gateway')?.spec).toMatchObject({ podMetricsEndpoints: [{ port: 'http', path: '/metrics' }] });
    const dashboard = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'propdesk-grafana-dashboard');
    expect(dashboard?.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(JSON.parse(dashboard!.data!['propdesk.json'])).toEqual(JSON.parse(fs.readFileSync(path.join(MONITORING, 'dashboards', 'propdesk.json'), 'utf8')));
  });

  it('alerts on what SPEC 16 lists, each with a runbook', () => {
    const rule = find('PrometheusRule', 'propdesk') as unknown as {
      spec: { groups: Array<{ rules: Array<{ alert: string; expr: string; for: string; annotations: Record<string, string>; labels: Record<string, string> }> }> };
    };
    const alerts = rule.spec.groups.flatMap((g) => g.rules);
    expect(alerts.map((a) => a.alert).sort()).toEqual(
      [
        'PropDeskDatabaseUnavailable',
        'PropDeskEngineLag',
        'PropDeskHighErrorRate',
        'PropDeskHighLatency',
        'PropDeskSlowRpc',
        'PropDeskWebhookDeliveriesLate',
        'PropDeskWebhookEndpointsFailing',
        'PropDeskWebhookOutboxBacklog',
      ].sort(),
    );
    for (const alert of alerts) {
      expect(alert.annotations.runbook?.length).toBeGreaterThan(60);
      expect(alert.annotations.summary).toBeTruthy();
      expect(['critical', 'warning']).toContain(alert.labels.severity);
    }
  });
});

/** Metric names in PromQL expressions, histogram series folded into their metric. */
function metricNames(expressions: string[]): string[] {
  const names = new Set<string>();
  for (const expr of expressions) {
    for (const [name] of expr.matchAll(/\b(?:propdesk|rpc_server)_[a-z0-9_]+/g)) names.add(name.replace(/_(bucket|count|sum)$/, ''));
  }
  return [...names].sort();
}

/** Every metric name registered in the code (`name: '...'` or a helper's first argument). */
function registeredNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'web') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        for (const [, name] of fs.readFileSync(full, 'utf8').matchAll(/['"]((?:propdesk|rpc_server)_[a-z0-9_]+)['"]/g)) names.add(name);
      }
    }
  };
  walk(path.join(ROOT, 'services'));
  walk(path.join(ROOT, 'gateway', 'src'));
  return names;
}

describe('the dashboard and the alerts', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(MONITORING, 'dashboards', 'propdesk.json'), 'utf8')) as {
    panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
  };
  const rules = fs.readFileSync(path.join(MONITORING, 'alerts.yaml'), 'utf8');

  it('loads as a Grafana dashboard (@grafana/schema)', () => {
    expect(typeErrors([{ type: 'Dashboard', from: '@grafana/schema', value: dashboard, name: 'dashboards/propdesk.json' }])).toEqual([]);
  });

  it('shows request rate, errors, p50/p99 per route and per RPC, engine lag and the webhook backlog', () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    for (const wanted of [
      /rate\(propdesk_gateway_requests_total\[/,
      /propdesk_gateway_requests_total\{status=~"5\.\."\}/,
      /histogram_quantile\(0\.5, sum by \(le, method, route\) \(rate\(propdesk_gateway_request_duration_seconds_bucket/,
      /histogram_quantile\(0\.99, sum by \(le, method, route\) \(rate\(propdesk_gateway_request_duration_seconds_bucket/,
      /histogram_quantile\(0\.5, sum by \(le, rpc_service, rpc_method\) \(rate\(rpc_server_duration_seconds_bucket/,
      /histogram_quantile\(0\.99, sum by \(le, rpc_service, rpc_method\) \(rate\(rpc_server_duration_seconds_bucket/,
      /propdesk_trading_feed_lag_seconds/,
      /propdesk_webhook_pending_deliveries/,
      /propdesk_webhook_outbox_backlog_events/,
    ]) {
      expect(exprs.some((e) => wanted.test(e))).toBe(true);
    }
  });

  it('query only metrics that the services register', () => {
    const exprs = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
      ...[...rules.matchAll(/expr: (\|\n(?:\s{12}.*\n)+|.*)/g)].map((m) => m[1]),
    ];
    const used = metricNames(exprs);
    expect(used.length).toBeGreaterThan(10);
    const registered = registeredNames();
    expect(used.filter((name) => !registered.has(name))).toEqual([]);
  });
});
