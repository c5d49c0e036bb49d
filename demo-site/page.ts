/**
 * The demo page's HTML: a believable marketing page of "Acme Analytics" (a fictional CDP vendor, one of
 * our customers) with the snippet pasted into <head> as a marketer would, and declarative
 * personalisation on static elements. The Preact tools mount on #demo-tools only.
 */
import { segmentRule } from './segment.ts';

export interface PageParts {
  /** The snippet exactly as `renderSnippet` prints it. */
  snippet: string;
  /** Name of the segment whose section is shown only to its members. */
  segmentName: string;
  /** Inline script that records tag events before app.js loads. */
  recorderJs: string;
  css: string;
  /** CSP nonce for the inline <style> and <script> (the snippet carries its own); the server fills it in per answer. */
  nonce?: string;
}

/**
 * Written into the built page where each answer's CSP nonce goes: the server (server/demo/site.ts)
 * replaces it with a fresh random value per response, so the page's inline scripts run under a strict CSP.
 */
export const NONCE_PLACEHOLDER = '__SVC_CSP_NONCE__';

/** Escapes text for HTML text and double- or single-quoted attribute values. */
export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Escapes a value for a single-quoted attribute, keeping double quotes readable (as a marketer writes them). */
const escSingle = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;');

export function renderPage({ snippet, segmentName, recorderJs, css, nonce }: PageParts): string {
  const segment = esc(segmentName);
  const n = nonce ? ` nonce="${esc(nonce)}"` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Acme Analytics: the customer data platform for B2B teams</title>
<meta name="description" content="Acme Analytics unifies product, marketing and sales data into one live profile per account.">
<style${n}>${css}</style>
<!-- Demo instrumentation (not part of the snippet): records tag events for the panel below. -->
<script${n}>${recorderJs.replace(/<\/script/gi, '<\\/script')}</script>
<!-- Web tag: pasted by the marketer -->
${snippet.trim()}
<!-- End web tag -->
</head>
<body>
<header class="site-header">
  <div class="wrap nav">
    <a class="logo" href="./"><span class="logo-mark" aria-hidden="true">◆</span> Acme Analytics</a>
    <nav aria-label="Main">
      <a href="#platform">Platform</a>
      <a href="#customers">Customers</a>
      <a href="#pricing">Pricing</a>
      <a href="#demo-tools" class="nav-demo">Tag inspector</a>
    </nav>
    <a class="btn btn-small" href="#contact">Book a demo</a>
  </div>
</header>

<main>
<section class="hero" id="hero">
  <div class="wrap">
    <p class="eyebrow" data-testid="hero-eyebrow" data-svc-text="Customer data platform for {company.industry|B2B} teams">Customer data platform for B2B teams</p>
    <h1 id="hero-title" data-testid="hero-title" data-svc-text="Customer data {company.display_name|your whole team} can trust">Customer data your whole team can trust</h1>
    <p class="lede">Acme Analytics unifies product usage, marketing touchpoints and sales activity into one live profile per account, so every campaign, page and conversation starts from what you already know.</p>
    <p class="welcome" id="welcome-banner" data-testid="welcome-banner" data-svc-show="match" hidden>
      Welcome, <strong data-svc-text="company.display_name">there</strong>. See how <span data-svc-text="company.industry|B2B">B2B</span> teams use Acme to cut time-to-insight in half.
    </p>
    <div class="cta-row">
      <a class="btn" href="#contact" data-testid="cta-trial" data-svc-hide="buying_stage >= Decision">Start a free trial</a>
      <a class="btn" href="#contact" data-testid="cta-sales" data-svc-show="buying_stage >= Decision" hidden>Talk to your account team</a>
      <a class="btn btn-ghost" href="#platform">See the platform</a>
    </div>
  </div>
</section>

<section class="logos" id="customers" aria-label="Customers">
  <div class="wrap">
    <p>Trusted by data teams at</p>
    <ul>
      <li>Northwind Traders</li><li>Initech</li><li>Umbrella Health</li><li>Vandelay Industries</li><li>Soylent Foods</li><li>Hooli Cloud</li>
    </ul>
  </div>
</section>

<section class="segment" id="segment-section" data-testid="segment-section" data-svc-show='${escSingle(segmentRule(segmentName))}' hidden>
  <div class="wrap">
    <p class="eyebrow">For ${segment}</p>
    <h2>Enterprise-grade from day one</h2>
    <p class="lede">Companies in ${segment} run Acme across dozens of products and regions. That takes more than a dashboard.</p>
    <ul class="cards">
      <li><h3>SSO, SCIM and audit logs</h3><p>Okta, Entra ID and Google Workspace; every change to an audience or a schema is logged.</p></li>
      <li><h3>Data residency</h3><p>Keep profiles in the EU, the US or your own warehouse region; processing never leaves it.</p></li>
      <li><h3>99.95% uptime SLA</h3><p>A named solutions architect and a 30-minute response time for severity-one incidents.</p></li>
    </ul>
    <a class="btn" href="#contact">Get the enterprise brief</a>
  </div>
</section>

<section class="platform" id="platform">
  <div class="wrap">
    <h2>One platform, from raw events to revenue</h2>
    <ul class="cards">
      <li><h3>Identity resolution</h3><p>Stitch anonymous visits, product users and CRM contacts into accounts, deterministically first.</p></li>
      <li><h3>Real-time audiences</h3><p>Build segments once and sync them to ads, email and your website in seconds, not nightly.</p></li>
      <li><h3>Warehouse-native</h3><p>Snowflake, BigQuery or Databricks stay the source of truth; Acme reads and writes in place.</p></li>
      <li><h3>Governance built in</h3><p>Consent, purpose and retention travel with every attribute, down to each destination.</p></li>
    </ul>
  </div>
</section>

<section class="intent" id="intent-banner" data-testid="intent-banner" data-svc-show="match and buying_stage >= Consideration" hidden>
  <div class="wrap">
    <h2>Comparing customer data platforms?</h2>
    <p>Get our side-by-side evaluation guide: 40 criteria, a scoring sheet, and the questions to ask every vendor (us included).</p>
    <a class="btn" href="#contact">Download the guide</a>
  </div>
</section>

<section class="quote">
  <div class="wrap">
    <blockquote>“We retired three point tools and our weekly reporting scramble. Sales now sees the same account story marketing does.”</blockquote>
    <p>Priya Raman, VP Growth, Northwind Traders</p>
  </div>
</section>

<section class="pricing" id="pricing">
  <div class="wrap">
    <h2>Pricing that grows with you</h2>
    <ul class="cards">
      <li><h3>Team</h3><p class="price">$1,200<span>/month</span></p><p>Up to 50,000 tracked accounts, 10 destinations.</p></li>
      <li><h3>Business</h3><p class="price">$3,900<span>/month</span></p><p>Unlimited destinations, predictive scores, hourly syncs.</p></li>
      <li><h3>Enterprise</h3><p class="price">Let's talk</p><p>SSO, data residency, SLA and a named architect.</p></li>
    </ul>
  </div>
</section>

<section class="closing" id="contact">
  <div class="wrap">
    <h2 data-svc-text="Ready to see what Acme does for {company.display_name|your team}?">Ready to see what Acme does for your team?</h2>
    <p data-svc-hide="match">New to Acme? Take the three-minute product tour, no sign-up needed.</p>
    <!-- Form fill: the tag fills the company fields it knows (never what the visitor typed) and hides the company field it filled. -->
    <form class="demo-form" id="demo-form" data-testid="demo-form" data-svc-fill action="#contact">
      <label>Work email <input name="email" type="email" autocomplete="email" placeholder="you@company.com"></label>
      <label data-svc-hide-when-filled data-testid="company-field">Company <input name="company" autocomplete="organization"></label>
      <label>Industry <input name="industry" data-testid="industry-input"></label>
      <label>Employees <input name="NumberOfEmployees" data-testid="employees-input"></label>
      <input type="hidden" name="website" data-testid="website-input">
      <button class="btn" type="submit" data-testid="cta-demo" data-svc-attr="title:Book a demo for {company.display_name|your team}; data-account:{company.domain|}">Book a demo</button>
    </form>
  </div>
</section>
</main>

<aside class="demo" aria-label="Tag inspector">
  <div class="wrap">
    <h2>Behind the scenes: what the tag sees</h2>
    <p class="hint">This panel is not part of a customer's site. It shows the answer on <code>window.svc.data</code> and everything the tag emitted.</p>
    <div id="demo-tools"><noscript>Enable JavaScript to see the tag inspector.</noscript></div>
  </div>
</aside>

<footer class="site-footer">
  <div class="wrap">© 2026 Acme Analytics, Inc. (a fictional company) · <a href="#">Privacy</a> · <a href="#">Terms</a></div>
</footer>
<script defer src="app.js"></script>
</body>
</html>
`;
}
