// What the catalog says of installed servers, the same on the Catalog page
// and on its badge.
import type { UpdateInfo } from "./api";

/** Does the registry have news of this installed server: a newer version, or a status other than active? */
export function isNews(u: UpdateInfo): boolean {
  return u.available !== null || u.status !== "active";
}
