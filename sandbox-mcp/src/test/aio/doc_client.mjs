// The JavaScript / Node.js integration example of AIO Sandbox's file API document (shared/surfaces/
// 004_127de70cfcd4978d.txt), as written there; only the base URL is taken from argv. AioHttpApiTest runs it.
class SandboxFileAPI {
  constructor(baseUrl = "http://localhost:8080") {
    this.baseUrl = baseUrl.replace(/\/$/, "");
  }
  async readFile(filePath, options = {}) {
    const response = await fetch(`${this.baseUrl}/v1/file/read`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ file: filePath, ...options }),
    });
    return response.json();
  }
  async writeFile(filePath, content, options = {}) {
    const response = await fetch(`${this.baseUrl}/v1/file/write`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ file: filePath, content, ...options }),
    });
    return response.json();
  }
  async replaceInFile(filePath, oldStr, newStr) {
    const response = await fetch(`${this.baseUrl}/v1/file/replace`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        file: filePath,
        old_str: oldStr,
        new_str: newStr,
      }),
    });
    return response.json();
  }
}
const api = new SandboxFileAPI(process.argv[2]);
const result = await api.readFile("/home/gem/workspace/data.txt");
if (result.success) {
  console.log("File content:", result.data.content);
  await api.replaceInFile(
    "/home/gem/workspace/config.json",
    '"debug": false',
    '"debug": true',
  );
}
