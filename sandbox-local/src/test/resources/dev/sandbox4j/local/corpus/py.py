import ssl, multiprocessing, sqlite3, asyncio, json, os, subprocess, threading, hashlib
ctx = ssl.create_default_context()
def sq(x): return x * x
async def main():
    await asyncio.sleep(0.01)
    p = await asyncio.create_subprocess_exec('true'); await p.wait()
    return 'async'
if __name__ == '__main__':
    with multiprocessing.Pool(2) as pool: r = pool.map(sq, range(10))
    db = sqlite3.connect('t.db'); db.execute('create table if not exists t(x)'); db.execute('insert into t values (1)'); db.commit()
    t = threading.Thread(target=lambda: None); t.start(); t.join()
    print('py ok', sum(r), asyncio.run(main()), db.execute('select count(*) from t').fetchone()[0] > 0, subprocess.run(['echo','sub'],capture_output=True).stdout)
