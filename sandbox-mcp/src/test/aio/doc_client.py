# The Python integration example of AIO Sandbox's file API document (shared/surfaces/004_127de70cfcd4978d.txt,
# "Python Integration", "Batch Operations", "Error Handling"), as written there; only the base URL is taken from
# argv. AioHttpApiTest runs it against sandbox4j's server and checks what it printed and what it left in the sandbox.
import json
import sys

import requests


class SandboxFileAPI:
    def __init__(self, base_url="http://localhost:8080"):
        self.base_url = base_url.rstrip("/")

    def read_file(self, file_path, start_line=None, end_line=None):
        payload = {"file": file_path}
        if start_line is not None:
            payload["start_line"] = start_line
        if end_line is not None:
            payload["end_line"] = end_line
        response = requests.post(
            f"{self.base_url}/v1/file/read",
            json=payload,
            timeout=30,
        )
        return response.json()

    def write_file(self, file_path, content, append=False):
        response = requests.post(
            f"{self.base_url}/v1/file/write",
            json={
                "file": file_path,
                "content": content,
                "append": append,
            },
            timeout=30,
        )
        return response.json()

    def search_files(self, pattern, directory="/home/gem/workspace"):
        response = requests.post(
            f"{self.base_url}/v1/file/find",
            json={
                "path": directory,
                "glob": pattern,
            },
            timeout=30,
        )
        return response.json()


api = SandboxFileAPI(sys.argv[1])
api.write_file("/home/gem/workspace/config.json", '{"debug": false}\n')
config = api.read_file("/home/gem/workspace/config.json")
print(config["data"]["content"])
api.write_file("/home/gem/workspace/app.log", "Process started\n", append=True)
files = api.search_files("*.py", "/home/gem/workspace/src")
for file_path in files["data"]["files"]:
    print(f"Found: {file_path}")


def batch_process_files(api, directory, pattern):
    files_result = api.search_files(pattern, directory)
    for file_path in files_result["data"]["files"]:
        content_result = api.read_file(file_path)
        if content_result["success"]:
            content = content_result["data"]["content"]
            output_path = file_path.replace(".txt", "_processed.txt")
            api.write_file(output_path, content.upper())


batch_process_files(api, "/home/gem/workspace/data", "*.txt")


def safe_file_operation(api, operation, **kwargs):
    try:
        result = operation(**kwargs)
        if result["success"]:
            return result["data"]
        error = result.get("data") or {}
        if error.get("error_type") == "not_found":
            print("File does not exist")
            return None
        print(f"Operation failed: {result['message']}")
        return None
    except requests.exceptions.RequestException as exc:
        print(f"Network error: {exc}")
        return None
    except json.JSONDecodeError as exc:
        print(f"JSON decode error: {exc}")
        return None


content = safe_file_operation(
    api,
    api.read_file,
    file_path="/home/gem/workspace/data.txt",
)
