/** The whole corpus, in the order it is replayed and reported. */
import type { Case } from './case.js';
import { applyCases } from './corpus-apply.js';
import { crudCases } from './corpus-crud.js';
import { dataSourceCases } from './corpus-data-sources.js';
import { deleteCases } from './corpus-delete.js';
import { discoveryCases } from './corpus-discovery.js';
import { dryRunCases } from './corpus-dryrun.js';
import { errorCases } from './corpus-errors.js';
import { kubectlCases } from './corpus-kubectl.js';
import { patchCases } from './corpus-patch.js';
import { protobufCases } from './corpus-protobuf.js';
import { resizeCases } from './corpus-resize.js';
import { secretCsiNodeCases } from './corpus-secrets-csinodes.js';
import { selectorCases } from './corpus-selectors.js';
import { snapshotCases } from './corpus-snapshots.js';
import { statusCases } from './corpus-status.js';
import { strategicCases } from './corpus-strategic.js';
import { surfaceCases } from './corpus-surface.js';
import { tableCases } from './corpus-table.js';
import { validationCases } from './corpus-validation.js';
import { watchCases } from './corpus-watch.js';

export const corpus: Case[] = [
  ...crudCases,
  ...dataSourceCases,
  ...patchCases,
  ...strategicCases,
  ...applyCases,
  ...deleteCases,
  ...statusCases,
  ...resizeCases,
  ...dryRunCases,
  ...validationCases,
  ...selectorCases,
  ...watchCases,
  ...tableCases,
  ...errorCases,
  ...discoveryCases,
  ...kubectlCases,
  ...surfaceCases,
  ...protobufCases,
  ...secretCsiNodeCases,
  ...snapshotCases,
];
