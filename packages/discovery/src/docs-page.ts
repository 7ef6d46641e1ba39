/**
 * The docs page of `discoveryDocuments({ docsPage })`: a page for people (an HTML API reference) that
 * this package does not make, so that an embedder who wants none installs none. `apiReferencePage`
 * of `@sl-accounts/docs-page` is one (Scalar). Without it, nothing links to a page: `GET /` answers
 * every client with the JSON index, and the index and the API catalog name no docs.
 */
import type { DocumentRoute } from '@sl-accounts/service/http';

/**
 * Makes the docs page for a service from its name (the page's title) and its normalised mount path
 * (`''` or `/accounts`, for the URLs of the page's own scripts). The page is what `GET /` sends a
 * browser to and the index and the catalog link; the assets (its scripts) are served beside it.
 * Every answer gets the documents' `ETag` and `Cache-Control` (its own when it sets them).
 */
export type DocsPage = (site: { readonly serviceName: string; readonly basePath: string }) => {
  readonly page: DocumentRoute;
  readonly assets: readonly DocumentRoute[];
};
