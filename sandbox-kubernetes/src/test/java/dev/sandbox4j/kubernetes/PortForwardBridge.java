package dev.sandbox4j.kubernetes;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/**
 * The API server's side of one port-forward stream, for the simulated control plane: the Kubernetes port-forward
 * WebSocket protocol (each message's first byte its channel, 0 data and 1 errors; each channel's first message the
 * port, two bytes little-endian) bridged to the pod's agent over TCP, as the kubelet's stream would. {@link #cut()}
 * breaks it the way a dropped API server connection does.
 */
final class PortForwardBridge extends WebSocketListener {
    private final String ip;
    private final int port;
    private volatile Socket socket;
    private volatile WebSocket ws;

    PortForwardBridge(String ip, int port) {
        this.ip = ip;
        this.port = port;
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
        ws = webSocket;
        byte[] portBytes = {(byte) (port & 0xff), (byte) (port >> 8)};
        webSocket.send(new byte[] {0, portBytes[0], portBytes[1]});
        webSocket.send(new byte[] {1, portBytes[0], portBytes[1]});
        try {
            Socket s = new Socket();
            s.connect(new InetSocketAddress(ip, port), 5000);
            socket = s;
        } catch (IOException e) {
            webSocket.send(new byte[] {1, 'c', 'o', 'n', 'n', 'e', 'c', 't'});
            webSocket.close(1011, "connect failed");
            return;
        }
        Thread pump = new Thread(this::pump, "k8s-sim-forward");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump() {
        byte[] buf = new byte[8192];
        try (InputStream in = socket.getInputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                byte[] msg = new byte[n + 1];
                System.arraycopy(buf, 0, msg, 1, n);
                ws.send(msg);
            }
        } catch (IOException e) {
            // the socket was closed: so is the stream
        }
        ws.close(1000, "the pod's port closed");
    }

    @Override
    public void onMessage(WebSocket webSocket, ByteString bytes) {
        handle(bytes.toByteArray());
    }

    @Override
    public void onMessage(WebSocket webSocket, byte[] bytes) {
        handle(bytes);
    }

    private void handle(byte[] bytes) {
        Socket s = socket;
        if (s == null || bytes.length < 2 || bytes[0] != 0) {
            return;
        }
        try {
            OutputStream out = s.getOutputStream();
            out.write(Arrays.copyOfRange(bytes, 1, bytes.length));
            out.flush();
        } catch (IOException e) {
            cut();
        }
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
        closeSocket();
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
        closeSocket();
    }

    /** Breaks the stream: the WebSocket ends with an error code and the pod's side is closed. */
    void cut() {
        WebSocket w = ws;
        if (w != null) {
            w.close(1011, "stream broken");
        }
        closeSocket();
    }

    private void closeSocket() {
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
