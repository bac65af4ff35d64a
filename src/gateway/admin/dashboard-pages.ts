/**
 * The dashboard's two HTML documents. No inline script or style anywhere (the Content-Security-
 * Policy forbids both); the page's behaviour is the bundled dashboard.js, built from dashboard/ by
 * scripts/build-dashboard.ts. Nothing a caller sent is ever written into these pages.
 */

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HEAD = `<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">`;

export function signInPage(failed: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<title>Sign in · Gateway dashboard</title>
${HEAD}
</head>
<body class="sign-in">
<main>
<h1>Gateway dashboard</h1>
<form method="post" action="/dashboard/sign-in">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="256"${failed ? ' aria-invalid="true" aria-describedby="sign-in-error"' : ''} autofocus>
${failed ? '<p id="sign-in-error" class="error" role="alert">That is not the admin token.</p>' : ''}
<button type="submit">Sign in</button>
</form>
<p class="hint">The token is the gateway's <code>ADMIN_TOKEN</code>.</p>
</main>
</body>
</html>
`;
}

const RANGES = `<option value="24h">Last 24 hours</option>
<option value="7d" selected>Last 7 days</option>
<option value="30d">Last 30 days</option>
<option value="90d">Last 90 days</option>`;

/** One view: a heading, its own time-range picker, and where the script draws. */
function view(id: string, title: string, extra = ''): string {
  return `<section class="view" id="view-${id}" aria-labelledby="view-${id}-title" data-view="${id}">
<header class="view-header">
<h2 id="view-${id}-title">${title}</h2>
<div class="controls">
<label>Time range <select class="range" data-view="${id}">
${RANGES}
</select></label>${extra}
</div>
</header>
<div class="view-body" aria-live="polite"></div>
</section>`;
}

const STACK_BY = `
<label>Stacked by <select class="stack-by">
<option value="app">App</option>
<option value="model">Model</option>
<option value="provider">Provider</option>
<option value="frontDoor">Front door</option>
<option value="deployment">Deployment</option>
<option value="tool">MCP tool</option>
</select></label>`;

/** Filled by the script with the registered apps (the page is the same for every admin). */
const APP_PICK = `
<label>App <select class="app-pick"></select></label>`;

export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<title>Gateway dashboard</title>
${HEAD}
<script type="module" src="/dashboard/assets/dashboard.js"></script>
</head>
<body>
<header class="top">
<h1>Gateway dashboard</h1>
<form method="post" action="/dashboard/sign-out"><button type="submit">Sign out</button></form>
</header>
<main>
${view('cost', 'Cost and requests over time', STACK_BY)}
${view('tokens', 'Tokens in and out')}
${view('caches', 'Prompt cache and response cache')}
${view('errors', 'Error rate')}
${view('latency', 'Latency p50 and p95')}
${view('refusals', 'Limit refusals')}
${view('tools', 'MCP tool calls')}
${view('apps', 'Top apps')}
${view('teams', 'Spend by team and budgets')}
${view('people', 'Spend by person', APP_PICK)}
${view('guardrails', 'What guardrails did')}
${view('failures', 'Recent failures')}
</main>
</body>
</html>
`;
}
