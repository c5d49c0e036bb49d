/**
 * The null rule of every API answer (spec: "Missing fields are returned as an empty list or null"):
 * a company or person field with no value is `null`, never `""`; a list with no items is `[]`. A "blank"
 * answer (No Match, invalid IP, 404 no data) has every company variable `null`.
 * Catalog rows carry "" for an empty CSV cell; answers convert at this one boundary.
 */
import { z } from 'zod';

/** The value, or null when it is absent or only whitespace. */
export function orNull(value: string | null | undefined): string | null {
  return value == null || value.trim() === '' ? null : value;
}

/** A text field of an answer: a non-blank string or null (never ""). */
export const nullableText = () => z.string().min(1).nullable();
