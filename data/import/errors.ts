/** A problem with an operator's input files: reported as a usage error (exit 2) naming file, row and field. */
import { SourceError } from '../sources/read.ts';

export class ImportError extends SourceError {}
