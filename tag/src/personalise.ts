/**
 * Declarative personalisation (feature `personalisation`): the thin DOM layer over the pure `render`
 * (template.ts) and `evaluate` (rules.ts), applied to each element by its pass (exposure.ts).
 *
 * - `data-svc-text="<path or template>"` sets textContent (never HTML); a template that renders
 *   nothing keeps the element's own text;
 * - `data-svc-show="<rule>"` / `data-svc-hide="<rule>"` toggle the `hidden` attribute: shown when the
 *   show rule holds (if there is one) and the hide rule does not (if there is one);
 * - `data-svc-attr="name:template; name2:template"` sets attributes, never an `on…` handler nor a
 *   `javascript:` URL; a template that renders nothing leaves the attribute alone.
 *
 * Idempotent: it runs again for elements added later (single-page apps) without undoing anything.
 */
/** A `data-svc-attr` pair `name: template` (a name not starting with "on"). */
export const ATTRIBUTE = /^\s*((?!on)[a-z][\w-]*)\s*:\s*(.*?)\s*$/i;
/** A value never set as an attribute. */
export const SCRIPT_URL = /^\s*javascript:/i;

/** The elements a personalisation pass visits. */
export const PERSONALISED = '[data-svc-text],[data-svc-show],[data-svc-hide],[data-svc-attr]';
