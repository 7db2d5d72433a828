#include <Python.h>
static PyObject *answer(PyObject *s, PyObject *a) { return PyLong_FromLong(42); }
static PyMethodDef M[] = {{"answer", answer, METH_NOARGS, ""}, {0}};
static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "cext", 0, -1, M};
PyMODINIT_FUNC PyInit_cext(void) { return PyModule_Create(&D); }
