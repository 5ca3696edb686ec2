/** GETs a URL and reads the answer as JSON when it is JSON. */
export async function getJson(url: string): Promise<{ status: number; text: string; json: any }> {
  const response = await fetch(url);
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}
